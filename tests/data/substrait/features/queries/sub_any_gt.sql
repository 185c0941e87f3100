-- x > ANY (subquery): true if it exceeds one value (Spark SQL has no quantified comparison: its text is the EXISTS it means)
SELECT id FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.v IS NOT NULL AND t.ii > u.v)
