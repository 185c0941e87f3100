-- an ISO string to a date
SELECT id, cast(cast(dt AS varchar(30)) AS date) AS r FROM t
