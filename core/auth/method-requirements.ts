import type { Scope } from "./principal.js";

/**
 * What each RPC requires of its caller: the one table scope enforcement reads (spec
 * "Authentication"). Kinds:
 * - public: no credentials (sign-in, payment webhook with its own signature, health, reflection);
 * - any: any valid token or session, no tenant needed (who-am-I, service status);
 * - tenant: a token or a session of a workspace member, with `scope`;
 * - session: a signed-in user, tenant optional (onboarding, sign-out);
 * - session-tenant: a signed-in member of a workspace (dashboard-only operations).
 * A method missing from the table is denied: new RPCs must be classified before they can be called.
 */
export type Requirement =
  | { readonly kind: "public" }
  | { readonly kind: "any" }
  | { readonly kind: "tenant"; readonly scope: Scope }
  | { readonly kind: "session" }
  | { readonly kind: "session-tenant" };

const tenant = (scope: Scope): Requirement => ({ kind: "tenant", scope });
const PUBLIC: Requirement = { kind: "public" };
const SESSION_TENANT: Requirement = { kind: "session-tenant" };

export const METHOD_REQUIREMENTS: Readonly<Record<string, Requirement>> = {
  "memory.v1.RecallService/Recall": tenant("read"),
  "memory.v1.RecallService/ListRecent": tenant("read"),
  "memory.v1.RecallService/GetStats": tenant("read"),

  "memory.v1.IngestService/StoreMemory": tenant("write"),
  "memory.v1.IngestService/StoreMemories": tenant("write"),
  "memory.v1.IngestService/UploadDocument": tenant("write"),
  "memory.v1.IngestService/IngestDocument": tenant("write"),
  "memory.v1.IngestService/StoreConversation": tenant("write"),
  "memory.v1.IngestService/UploadFile": tenant("write"),
  "memory.v1.IngestService/FetchWebPage": tenant("write"),

  "memory.v1.GraphService/Link": tenant("write"),
  "memory.v1.GraphService/Unlink": tenant("write"),
  "memory.v1.GraphService/ListRelations": tenant("read"),
  "memory.v1.GraphService/ListVersions": tenant("read"),
  "memory.v1.GraphService/UpdateFact": tenant("write"),
  "memory.v1.GraphService/GetGraphSchema": tenant("read"),

  "memory.v1.TenancyService/StartSignIn": PUBLIC,
  "memory.v1.TenancyService/CompleteSignIn": PUBLIC,
  "memory.v1.TenancyService/SignOut": { kind: "session" },
  "memory.v1.TenancyService/GetSession": { kind: "any" },
  "memory.v1.TenancyService/Onboard": { kind: "session" },
  "memory.v1.TenancyService/ListTokens": SESSION_TENANT,
  "memory.v1.TenancyService/CreateToken": SESSION_TENANT,
  "memory.v1.TenancyService/RevokeToken": SESSION_TENANT,
  // Provider keys: the dashboard session (spec) or an admin-scope token (/api/v1/keys, automation).
  "memory.v1.TenancyService/ListProviderKeys": tenant("admin"),
  "memory.v1.TenancyService/CreateProviderKey": tenant("admin"),
  "memory.v1.TenancyService/TestProviderKey": tenant("admin"),
  "memory.v1.TenancyService/DeleteProviderKey": tenant("admin"),
  "memory.v1.TenancyService/GetModelSelection": tenant("admin"),
  "memory.v1.TenancyService/UpdateModelSelection": tenant("admin"),
  "memory.v1.TenancyService/ExportAudit": SESSION_TENANT,
  "memory.v1.TenancyService/ExportTenant": SESSION_TENANT,
  // OAuth: registration, client lookup, token and revocation endpoints authenticate the client by
  // its own credentials in the request (RFC 6749 2.3); consent needs a signed-in member.
  "memory.v1.TenancyService/RegisterOAuthClient": PUBLIC,
  "memory.v1.TenancyService/GetOAuthClient": PUBLIC,
  "memory.v1.TenancyService/AuthorizeOAuthClient": SESSION_TENANT,
  "memory.v1.TenancyService/ExchangeOAuthGrant": PUBLIC,
  "memory.v1.TenancyService/RevokeOAuthToken": PUBLIC,

  "memory.v1.BillingService/CreateCheckout": SESSION_TENANT,
  "memory.v1.BillingService/CreatePortalSession": SESSION_TENANT,
  "memory.v1.BillingService/HandlePaymentEvent": PUBLIC,
  "memory.v1.BillingService/RequestCancellation": PUBLIC,
  "memory.v1.BillingService/ConfirmCancellation": PUBLIC,
  "memory.v1.BillingService/GetBilling": SESSION_TENANT,

  "memory.v1.WebhookService/CreateSubscription": tenant("admin"),
  "memory.v1.WebhookService/ListSubscriptions": tenant("admin"),
  "memory.v1.WebhookService/DeleteSubscription": tenant("admin"),
  "memory.v1.WebhookService/ReactivateSubscription": tenant("admin"),
  "memory.v1.WebhookService/SendTestEvent": tenant("admin"),
  "memory.v1.WebhookService/ListDeliveries": tenant("admin"),
  "memory.v1.WebhookService/GetSubscription": tenant("admin"),
  "memory.v1.WebhookService/UpdateSubscription": tenant("admin"),
  "memory.v1.WebhookService/RotateSecret": tenant("admin"),

  // Erasure and import (docs/erasure.md): the owner check of the last two is in core/lifecycle/.
  "memory.v1.LifecycleService/EraseMemory": tenant("admin"),
  "memory.v1.LifecycleService/EraseWorkspace": SESSION_TENANT,
  "memory.v1.LifecycleService/ImportTenant": SESSION_TENANT,

  "memory.v1.StatusService/GetStatus": { kind: "any" },

  "grpc.health.v1.Health/Check": PUBLIC,
  "grpc.health.v1.Health/List": PUBLIC,
  "grpc.health.v1.Health/Watch": PUBLIC,
  "grpc.reflection.v1.ServerReflection/ServerReflectionInfo": PUBLIC,
  "grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo": PUBLIC,
};
