-- SELECT DISTINCT over two columns with NULLs
SELECT DISTINCT g, b FROM t
