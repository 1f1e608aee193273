-- Runs once, when the postgres container initialises an empty data directory
-- (/docker-entrypoint-initdb.d). Each service owns its own database; none reads another's tables.
CREATE DATABASE gateway;
CREATE DATABASE index_service;
