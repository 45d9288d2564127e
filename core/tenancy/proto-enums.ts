import { type Plan, PlanSchema } from "../../gen/memory/v1/memory_pb.js";
import { type Scope as ScopeEnum, ScopeSchema } from "../../gen/memory/v1/tenancy_service_pb.js";
import { enumValue, enumWord } from "../../lib/proto-enum-words.js";
import type { PlanName, Scope } from "../auth/principal.js";

/** Proto enums ↔ the words stored in the database and used by the plan table. */

/** Validation (protovalidate) has already refused UNSPECIFIED; this only narrows. */
export function planName(plan: Plan): PlanName {
  if (plan === 0) throw new Error("plan is unspecified");
  return enumWord(PlanSchema, plan) as PlanName;
}

export const planEnum = (name: PlanName): Plan => enumValue(PlanSchema, name);

export function scopeName(scope: ScopeEnum): Scope {
  if (scope === 0) throw new Error("scope is unspecified");
  return enumWord(ScopeSchema, scope) as Scope;
}

export const scopeEnum = (name: Scope): ScopeEnum => enumValue(ScopeSchema, name);
