-- digit strings to integers
SELECT cast(x AS integer) AS i FROM (VALUES ('12'), ('-7'), ('0')) v(x)
