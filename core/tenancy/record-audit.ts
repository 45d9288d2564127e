// The audit log is shared by tenancy and billing; it lives in core/store/.
export { type AuditAction, type AuditEntry, recordAudit } from "../store/record-audit.js";
