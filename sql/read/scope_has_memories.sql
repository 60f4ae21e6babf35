-- Whether any memory lies in one of the scopes given (recall query's note on empty scopes;
-- run by the command as the owner, who sees every scope, to tell the user, never in a pack).
SELECT EXISTS (SELECT 1 FROM recall.memories WHERE scopes && @scopes::text[])
