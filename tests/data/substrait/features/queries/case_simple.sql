-- simple CASE on a string with an ELSE
SELECT id, CASE g WHEN 'a' THEN 1 WHEN 'b' THEN 2 ELSE 0 END AS c FROM t
