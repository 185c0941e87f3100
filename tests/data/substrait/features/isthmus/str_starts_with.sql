-- starts_with()
SELECT id FROM t WHERE starts_with(s, 'ba')
