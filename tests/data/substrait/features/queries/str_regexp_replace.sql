-- regexp_replace of an anchored pattern (one match at most)
SELECT id, regexp_replace(s, '^a+', 'X') AS c FROM t
