-- TRIM(LEADING ...) and TRIM(TRAILING ...)
SELECT id, trim(LEADING ' ' FROM s) AS l, trim(TRAILING ' ' FROM s) AS r FROM t
