-- LIKE with % and _ wildcards
SELECT id FROM t WHERE s LIKE '%a_a%'
