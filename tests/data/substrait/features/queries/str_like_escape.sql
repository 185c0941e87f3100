-- LIKE with an escaped wildcard
SELECT id FROM t WHERE s LIKE '%#_b%' ESCAPE '#'
