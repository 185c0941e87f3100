-- a VALUES list with NULLs
SELECT a, c FROM (VALUES (1, 'x'), (2, NULL), (NULL, 'z')) v(a, c)
