-- an uncorrelated scalar subquery in the select list
SELECT id, (SELECT max(v) FROM u) AS mv FROM t
