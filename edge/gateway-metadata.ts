// The metadata contract between gateways and core (see core/auth/gateway-metadata.ts). Re-exported
// here so gateways import it from the shared edge module, not from core: a leaf of constants.
export { CLIENT_IP_HEADER, GATEWAY_HEADER, MCP_GATEWAY } from "../core/auth/gateway-metadata.js";
