-- Up Migration
CREATE TABLE notes (id text PRIMARY KEY);
