-- ILIKE is case-insensitive
SELECT id FROM t WHERE s ILIKE 'APPLE'
