import type { FastifyPluginAsync } from "fastify";
import type { CoreClients } from "../edge/core-clients.js";
import { healthRoutes } from "./routes/health.js";

export interface RestGatewayOptions {
  clients: CoreClients;
}

/** camelCase REST under /api: translation only; every rule lives in core. */
export const restGateway: FastifyPluginAsync<RestGatewayOptions> = async (app, options) => {
  await app.register(healthRoutes, { prefix: "/api", clients: options.clients });
};
