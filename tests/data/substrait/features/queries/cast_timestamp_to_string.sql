-- a timestamp to a string
SELECT id, cast(ts AS varchar(30)) AS r FROM tm WHERE id <> 5
