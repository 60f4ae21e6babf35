-- Give a database the commands created to its owner role; {{database}} and {{owner}} are
-- quoted identifiers.
ALTER DATABASE {{database}} OWNER TO {{owner}}
