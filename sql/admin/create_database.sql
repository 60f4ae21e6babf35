-- A database for the commands (internal/command/cli); {{database}} is its quoted name.
CREATE DATABASE {{database}}
