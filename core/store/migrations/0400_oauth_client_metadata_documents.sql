-- Client ID metadata documents (draft-ietf-oauth-client-id-metadata-document, MCP authorization
-- 2025-11-25; ADR 0400). A client whose client_id is an https URL is not registered: core fetches
-- the document at that URL and keeps what it read in a row of oauth_clients, keyed by the URL, so
-- codes and grants reference it like any client. The row is refreshed on every fetch; public
-- clients only (the draft forbids shared secrets in a document).
ALTER TABLE oauth_clients ADD COLUMN metadata_url text UNIQUE;
ALTER TABLE oauth_clients ADD COLUMN metadata_fetched_at timestamptz;
ALTER TABLE oauth_clients ADD CONSTRAINT oauth_clients_metadata_document_public CHECK (
  metadata_url IS NULL OR (token_endpoint_auth_method = 'none' AND metadata_fetched_at IS NOT NULL));
