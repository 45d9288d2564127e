-- Conversations (issue 48 item 3, ADR 0484): a session is one episodic memory (kind document, one
-- chunk per turn); these tables keep what its content cannot: each turn's speaker, time and identity,
-- so an append adds only turns not stored yet, and the session's place in its conversation.

CREATE TABLE conversation_sessions (
  tenant_id uuid NOT NULL REFERENCES tenants (id),
  session_id text NOT NULL,
  -- The conversation's title; sessions sharing it are linked in order of started_at. NULL: alone.
  conversation text,
  -- The session memory's lineage (stable across appends: a new version joins the replaced one's).
  lineage_id uuid NOT NULL,
  -- The earliest message time of the session.
  started_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, session_id)
);
CREATE INDEX conversation_sessions_conversation_idx
  ON conversation_sessions (tenant_id, conversation, started_at) WHERE conversation IS NOT NULL;
CREATE INDEX conversation_sessions_lineage_idx ON conversation_sessions (tenant_id, lineage_id);

CREATE TABLE conversation_turns (
  tenant_id uuid NOT NULL,
  session_id text NOT NULL,
  ordinal integer NOT NULL,
  speaker text NOT NULL,
  content text NOT NULL,
  -- The message's time, or when the session first received it.
  said_at timestamptz NOT NULL,
  -- sha256(speaker, content, given time): what makes a re-sent turn a repeat.
  turn_sha256 bytea NOT NULL,
  PRIMARY KEY (tenant_id, session_id, ordinal),
  FOREIGN KEY (tenant_id, session_id) REFERENCES conversation_sessions (tenant_id, session_id) ON DELETE CASCADE
);

ALTER TABLE conversation_sessions ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON conversation_sessions
  USING (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid);
ALTER TABLE conversation_turns ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON conversation_turns
  USING (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid);
