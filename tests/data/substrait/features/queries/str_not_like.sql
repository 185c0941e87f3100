-- NOT LIKE (NULLs drop out)
SELECT id FROM t WHERE s NOT LIKE '%a%'
