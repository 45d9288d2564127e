import type { Interceptor } from "@connectrpc/connect";

/** An API token (`kmt_…`), or a function returning the current one (rotated tokens, vaults). */
export type TokenSource = string | (() => string | Promise<string>);

/** Sends `authorization: Bearer <token>` on every call. */
export function bearerTokenInterceptor(token: TokenSource): Interceptor {
  return (next) => async (request) => {
    const value = typeof token === "function" ? await token() : token;
    request.header.set("authorization", `Bearer ${value}`);
    return next(request);
  };
}
