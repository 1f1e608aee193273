-- Up Migration
-- Responses over a knowledge store (issue 33): a session is one conversation of an organization
-- over one knowledge store; each turn keeps what was asked, what was answered, its citations and
-- its usage, so that a follow-up sees the earlier turns. A cancelled turn is never written.
CREATE TABLE response_sessions (
  id                  text PRIMARY KEY,
  org_id              text NOT NULL,
  knowledge_store_id  text NOT NULL,
  created_at          timestamptz NOT NULL,
  updated_at          timestamptz NOT NULL
);

CREATE TABLE response_turns (
  id                 text PRIMARY KEY,
  session_id         text NOT NULL REFERENCES response_sessions (id) ON DELETE CASCADE,
  turn               integer NOT NULL CHECK (turn >= 0),
  provider           text NOT NULL,
  input              jsonb NOT NULL,
  output             text NOT NULL,
  citations          jsonb NOT NULL,
  status             text NOT NULL CHECK (status IN ('completed', 'incomplete')),
  incomplete_reason  text NOT NULL,
  input_tokens       integer NOT NULL CHECK (input_tokens >= 0),
  output_tokens      integer NOT NULL CHECK (output_tokens >= 0),
  created_at         timestamptz NOT NULL,
  UNIQUE (session_id, turn)
);
