-- x > ANY (subquery): true if it exceeds one value (Spark SQL has no quantified comparison: its text is the EXISTS it means)
SELECT id FROM t WHERE ii > ANY (SELECT v FROM u WHERE v IS NOT NULL)
