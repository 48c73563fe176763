# The Cluster at v1.33.2 (the base of a chained upgrade).
s/version: v1\.34\.1$/version: v1.33.2/
