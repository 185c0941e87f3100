-- ordering by a date with NULLs last
SELECT id, dt FROM t ORDER BY dt NULLS LAST, id
