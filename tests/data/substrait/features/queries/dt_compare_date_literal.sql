-- a date compared with a DATE literal
SELECT id FROM t WHERE dt >= DATE '2024-02-29'
