-- starts_with()
SELECT id FROM t WHERE startswith(s, 'ba')
