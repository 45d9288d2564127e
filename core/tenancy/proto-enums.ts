import { Plan } from "../../gen/memory/v1/memory_pb.js";
import { Scope as ScopeEnum } from "../../gen/memory/v1/tenancy_service_pb.js";
import type { PlanName, Scope } from "../auth/principal.js";

/** Proto enums ↔ the names stored in the database and used by the plan table. */

const PLAN_NAMES: Readonly<Record<Exclude<Plan, Plan.UNSPECIFIED>, PlanName>> = {
  [Plan.FREE]: "free",
  [Plan.PLUS]: "plus",
  [Plan.PRO]: "pro",
  [Plan.TEAM]: "team",
  [Plan.API]: "api",
};

const SCOPE_NAMES: Readonly<Record<Exclude<ScopeEnum, ScopeEnum.UNSPECIFIED>, Scope>> = {
  [ScopeEnum.READ]: "read",
  [ScopeEnum.WRITE]: "write",
  [ScopeEnum.ADMIN]: "admin",
};

/** Validation (protovalidate) has already refused UNSPECIFIED; this only narrows. */
export function planName(plan: Plan): PlanName {
  if (plan === Plan.UNSPECIFIED) throw new Error("plan is unspecified");
  return PLAN_NAMES[plan];
}

export function planEnum(name: PlanName): Plan {
  const entry = Object.entries(PLAN_NAMES).find(([, n]) => n === name);
  return entry ? (Number(entry[0]) as Plan) : Plan.UNSPECIFIED;
}

export function scopeName(scope: ScopeEnum): Scope {
  if (scope === ScopeEnum.UNSPECIFIED) throw new Error("scope is unspecified");
  return SCOPE_NAMES[scope];
}

export function scopeEnum(name: Scope): ScopeEnum {
  const entry = Object.entries(SCOPE_NAMES).find(([, n]) => n === name);
  return entry ? (Number(entry[0]) as ScopeEnum) : ScopeEnum.UNSPECIFIED;
}
