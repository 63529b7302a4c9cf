"""Join two CSV files: customers and their orders, revenue per country.

PySpark's DataFrame reader and join with the imports changed. Without a directory it
writes two sample CSV files (with headers) first.

Usage: csv_join.py [DIR] [--master local[2]] [--customers 200] [--orders 2000]
"""

from __future__ import annotations

import argparse
import csv
import random
import sys
import tempfile
from pathlib import Path

from dstream.sql import SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's idiom

COUNTRIES = ["FR", "DE", "US", "JP", "BR", "IN", "NG"]


def write_sample(directory: Path, customers: int, orders: int, seed: int = 7) -> None:
    """Write ``customers.csv`` (id, name, country) and ``orders.csv`` (order_id, customer_id, amount)."""
    rng = random.Random(seed)
    with open(directory / "customers.csv", "w", newline="", encoding="utf-8") as f:
        out = csv.writer(f)
        out.writerow(["id", "name", "country"])
        for i in range(customers):
            out.writerow([i, f"customer-{i}", rng.choice(COUNTRIES)])
    with open(directory / "orders.csv", "w", newline="", encoding="utf-8") as f:
        out = csv.writer(f)
        out.writerow(["order_id", "customer_id", "amount"])
        for i in range(orders):
            # A few orders name no known customer: the inner join drops them.
            out.writerow([i, rng.randrange(int(customers * 1.05)), round(rng.uniform(1, 500), 2)])


def build_parser() -> argparse.ArgumentParser:
    """The example's command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", nargs="?", help="directory holding customers.csv and orders.csv")
    parser.add_argument("--master", default="local[2]", help="local, local[N] or local[*]")
    parser.add_argument("--customers", type=int, default=200, help="customers in the generated sample")
    parser.add_argument("--orders", type=int, default=2000, help="orders in the generated sample")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)

    spark = SparkSession.builder.master(args.master).appName("PythonCSVJoin").getOrCreate()
    with tempfile.TemporaryDirectory() as scratch:
        directory = Path(args.directory or scratch)
        if args.directory is None:
            write_sample(directory, args.customers, args.orders)
        customers = spark.read.csv(str(directory / "customers.csv"), header=True, inferSchema=True)
        orders = spark.read.csv(str(directory / "orders.csv"), header=True, inferSchema=True)
        customers.printSchema()
        joined = orders.join(customers, orders.customer_id == customers.id, "inner")
        revenue = (joined.groupBy("country")
                   .agg(F.count("*").alias("orders"), F.round(F.sum("amount"), 2).alias("revenue"))
                   .orderBy(F.desc("revenue")))
        revenue.show()
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
