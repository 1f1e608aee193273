-- Runs once, when the postgres container initialises an empty data directory
-- (/docker-entrypoint-initdb.d). Each service owns its own database; none reads another's tables.
-- Add a new service's database above index_service: the compose healthcheck waits for the last one.
CREATE DATABASE gateway;
CREATE DATABASE billing_service;
CREATE DATABASE index_service;
