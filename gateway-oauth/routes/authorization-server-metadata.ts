import type { FastifyInstance } from "fastify";
import type { OAuthRouteContext } from "../oauth-context.js";
import { authorizationServerMetadata, doc, OAUTH_PATHS } from "../oauth-metadata.js";
import { openCors } from "../oauth-replies.js";

/** GET /.well-known/oauth-authorization-server (RFC 8414). */
export function registerAuthorizationServerMetadata(app: FastifyInstance, context: OAuthRouteContext): void {
  const metadata = authorizationServerMetadata(context.publicUrl);
  app.get(
    OAUTH_PATHS.authorizationServerMetadata,
    {
      schema: doc(
        "RFC 8414 authorization server metadata (endpoints, PKCE S256, grant types, client ID metadata documents, iss in responses)",
      ),
    },
    async (_request, reply) => openCors(reply).send(metadata),
  );
}
