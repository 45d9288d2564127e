import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import type { PlanName } from "../../core/auth/principal.js";
import { issueApiToken } from "../../core/tenancy/api-tokens.js";
import { TenancyService } from "../../gen/memory/v1/tenancy_service_pb.js";
import type { TestService } from "../helpers/test-service.js";
import { cookieHeader, freshIp, signIn, signInWithWorkspace } from "./sign-in-helper.js";

/** A signed-in owner of a workspace on `plan`, plus an API token of it for writing memories. */
export interface ExportWorkspace {
  readonly session: string;
  readonly tenantId: string;
  readonly slug: string;
  readonly userId: string;
  readonly token: string;
}

export async function exportWorkspace(service: TestService, plan: PlanName): Promise<ExportWorkspace> {
  const { session, tenantId, slug } = await signInWithWorkspace(service, "free");
  // Paid plans come from the payment webhook; tests set the plan the way the webhook would.
  if (plan !== "free") await service.storage.db.sql`update tenants set plan = ${plan} where id = ${tenantId}`;
  const issued = await issueApiToken(service.storage.db.sql, {
    tenantId,
    name: "writer",
    scopes: ["read", "write"],
  });
  const [member] = await service.storage.db.sql<{ user_id: string }[]>`
    select user_id from memberships where tenant_id = ${tenantId}`;
  if (!member) throw new Error("onboarding created no membership");
  return { session, tenantId, slug, userId: member.user_id, token: issued.token };
}

/**
 * Signs a new user in and makes them a member of an existing workspace (one made by
 * `service.createTenant`), so its exports can be called with a session.
 */
export async function sessionFor(service: TestService, tenantId: string): Promise<string> {
  const { session, email } = await signIn(service);
  await service.storage.db.sql`
    insert into memberships (tenant_id, user_id)
    select ${tenantId}, id from users where lower(email) = lower(${email})`;
  return session;
}

/** GET an export route with the session cookie from a fresh client IP. */
export function restExport(
  service: TestService,
  which: "tenant" | "audit",
  headers: Record<string, string>,
  ip = freshIp(),
): Promise<Response> {
  return fetch(`${service.httpUrl}/api/${which}/export`, { headers: { "x-forwarded-for": ip, ...headers } });
}

/** The tenant export through REST with a session, parsed. */
export async function restBundle(service: TestService, session: string): Promise<TenantBundle> {
  const res = await restExport(service, "tenant", cookieHeader(session));
  if (res.status !== 200)
    throw new Error(`GET /api/tenant/export answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as TenantBundle;
}

/** An export RPC over real gRPC with x-session-token; returns the chunks as they arrived. */
export async function grpcExportChunks(
  service: TestService,
  which: "tenant" | "audit",
  headers: Record<string, string>,
): Promise<Uint8Array[]> {
  const client = createClient(TenancyService, createGrpcTransport({ baseUrl: service.grpcUrl }));
  const stream =
    which === "tenant" ? client.exportTenant({}, { headers }) : client.exportAudit({}, { headers });
  const chunks: Uint8Array[] = [];
  for await (const message of stream) chunks.push(message.chunk);
  return chunks;
}

export const joinChunks = (chunks: readonly Uint8Array[]): string => Buffer.concat(chunks).toString("utf8");

export interface BundleMemory {
  id: string;
  lineageId: string;
  kind: string;
  memoryType: string;
  title: string;
  content: string;
  source: string | null;
  tags: string[];
  metadata: Record<string, unknown>;
  status: string;
  statusDetail: string | null;
  updateReason: string | null;
  validFrom: string;
  validTo: string | null;
  recordedAt: string;
  createdAt: string;
  updatedAt: string;
}

export interface BundleEdge {
  id: string;
  relType: string;
  fromId: string;
  toId: string;
  inverseEdgeId: string | null;
  validFrom: string;
  validTo: string | null;
  createdAt: string;
}

export interface BundleAudit {
  id: string;
  createdAt: string;
  action: string;
  actorUserId: string | null;
  actorTokenId: string | null;
  target: string | null;
  ip: string | null;
  details: Record<string, unknown>;
}

export interface TenantBundle {
  format: string;
  exportedAt: string;
  tenant: { id: string; slug: string; name: string; plan: string; createdAt: string };
  auditRetentionDays: number;
  auditSince: string;
  memories: BundleMemory[];
  edges: BundleEdge[];
  audit: BundleAudit[];
  counts: { memories: number; edges: number; audit: number };
}

/** A strict RFC 4180 reader (quoted fields, doubled quotes, CRLF records) to check the CSV. */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let fields: string[] = [];
  let field = "";
  let i = 0;
  while (i < text.length) {
    if (text[i] === '"' && field === "") {
      i++;
      for (;;) {
        if (i >= text.length) throw new Error("unterminated quoted field");
        if (text[i] === '"' && text[i + 1] === '"') {
          field += '"';
          i += 2;
        } else if (text[i] === '"') {
          i++;
          break;
        } else {
          field += text[i];
          i++;
        }
      }
    }
    if (text.startsWith("\r\n", i)) {
      fields.push(field);
      records.push(fields);
      fields = [];
      field = "";
      i += 2;
    } else if (text[i] === ",") {
      fields.push(field);
      field = "";
      i++;
    } else if (i < text.length) {
      if (text[i] === '"' || text[i] === "\r" || text[i] === "\n") {
        throw new Error(`unquoted ${JSON.stringify(text[i])} at ${i}`);
      }
      field += text[i];
      i++;
    }
  }
  if (field !== "" || fields.length > 0) throw new Error("the last record is not CRLF-terminated");
  return records;
}
