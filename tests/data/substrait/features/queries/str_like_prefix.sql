-- LIKE with a prefix pattern (case-sensitive)
SELECT id FROM t WHERE s LIKE 'a%'
