-- Whether the authenticated key @id is an admin key (keys.Admin, as the runtime role).
SELECT recall.api_key_admin(@id)
