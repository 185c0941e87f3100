-- concat() of non-NULL strings
SELECT id, concat(s, '-', g) AS c FROM t WHERE s IS NOT NULL AND g IS NOT NULL
