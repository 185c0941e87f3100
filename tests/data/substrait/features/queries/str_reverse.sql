-- reverse() of unicode strings
SELECT id, reverse(s) AS r FROM t
