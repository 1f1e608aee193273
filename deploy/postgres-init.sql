-- Runs once, when the postgres container initialises an empty data directory
-- (/docker-entrypoint-initdb.d). Each service owns its own database; none reads another's tables.
-- Add a new service's database above index_service: the compose healthcheck waits for the last one.
CREATE DATABASE gateway;
CREATE DATABASE billing_service;
CREATE DATABASE task_service;
CREATE DATABASE search_service;
CREATE DATABASE analyze_service;
CREATE DATABASE embed_service;
CREATE DATABASE classify_service;
-- search-service's vectors: pgvector (the image is pgvector/pgvector), created here by the superuser so
-- that the service's own user needs no extension privileges. Its migration creates it too when it may.
\connect search_service
CREATE EXTENSION IF NOT EXISTS vector;
\connect postgres
CREATE DATABASE index_service;
