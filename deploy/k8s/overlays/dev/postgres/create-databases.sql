-- One database per service, made when the PostgreSQL data directory is first
-- initialised (docker-compose.yml and the dev Kubernetes overlay run it).
CREATE DATABASE vault_developer;
CREATE DATABASE vault_user;
CREATE DATABASE vault_records;
