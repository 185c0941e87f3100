-- replace() of every occurrence
SELECT id, replace(s, 'a', 'A') AS c FROM t
