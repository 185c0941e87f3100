-- upper() and lower(), unicode included
SELECT id, upper(s) AS up, lower(s) AS lo FROM t
