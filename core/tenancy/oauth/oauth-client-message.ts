import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { type OAuthClient, OAuthClientSchema } from "../../../gen/memory/v1/tenancy_service_pb.js";
import { scopeEnum } from "../proto-enums.js";
import { type ClientRow, publicClientId } from "./oauth-rules.js";

/** A client's public registration as the proto message (never its secret). */
export function oauthClientMessage(row: ClientRow): OAuthClient {
  return create(OAuthClientSchema, {
    clientId: publicClientId(row),
    clientIdMetadataDocument: row.metadata_url !== null,
    clientName: row.client_name,
    redirectUris: row.redirect_uris,
    tokenEndpointAuthMethod: row.token_endpoint_auth_method,
    scopes: row.scopes.map(scopeEnum),
    grantTypes: row.grant_types,
    issuedAt: timestampFromDate(row.created_at),
    ...(row.client_uri ? { clientUri: row.client_uri } : {}),
    ...(row.logo_uri ? { logoUri: row.logo_uri } : {}),
    ...(row.software_id ? { softwareId: row.software_id } : {}),
    ...(row.software_version ? { softwareVersion: row.software_version } : {}),
  });
}
