-- a string to a timestamp
SELECT cast(x AS timestamp) AS r FROM (VALUES ('2024-01-02 03:04:05'), ('1999-12-31 23:59:59')) v(x)
