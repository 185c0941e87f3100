-- trim() of spaces
SELECT id, trim(s) AS c FROM t
