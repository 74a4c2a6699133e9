#!/usr/bin/env python3
"""Extracts cases.json from Vitess's planner tests (see README.md).

usage: extract.py VITESS_PLANBUILDER_TESTDATA_DIR > cases.json

Keeps the cases whose plan is one Route (SELECT) or one Update/Delete
primitive with a route variant shardkey models, over the tables of
vschema.json only. Nothing here decides an expected value: each case's
"variant", "vindex" and "values" are copied from Vitess's plan.
"""
import json, os, re, sys

d = sys.argv[1]
vs = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "vschema.json")))
tables = set()
for ks, k in vs["keyspaces"].items():
    for t in k.get("tables", {}):
        tables.add(ks + "." + t)
short = {t.split(".")[1] for t in tables} | {"dual"}
VARIANTS = {"EqualUnique", "Equal", "IN", "MultiEqual", "Scatter", "None", "Reference"}
FILES = ["filter_cases.json", "select_cases.json", "from_cases.json", "dml_cases.json",
         "reference_cases.json", "union_cases.json", "cte_cases.json", "aggr_cases.json",
         "memory_sort_cases.json", "postprocess_cases.json", "wireup_cases.json",
         "vindex_func_cases.json", "large_cases.json", "symtab_cases.json"]
out = []
for f in FILES:
    p = os.path.join(d, f)
    if not os.path.exists(p):
        continue
    for c in json.load(open(p)):
        plan = c.get("plan")
        if not isinstance(plan, dict):
            continue
        ins = plan.get("Instructions", {})
        op = ins.get("OperatorType")
        if op not in ("Route", "Update", "Delete"):
            continue
        if plan.get("QueryType") not in ("SELECT", "UPDATE", "DELETE"):
            continue
        if ins.get("Variant") not in VARIANTS or "Inputs" in ins:
            continue
        used = plan.get("TablesUsed", [])
        if not used or any(t not in tables for t in used):
            continue
        # A name the plan resolves through a routing rule or a view
        # (route1, second_user.bar, user_details_view) is not in the
        # VSchema's tables: shardkey has no routing rules or views.
        names = re.findall(r"(?:\bfrom|\bjoin|\bupdate|\binto)\s+([\w.`]+)", c["query"], re.I)
        if any(n.strip("`").split(".")[-1] not in short for n in names):
            continue
        if ins.get("Vindex") and ins["Vindex"] not in vs["keyspaces"]["user"]["vindexes"]:
            continue  # routed by a vindex left out of vschema.json
        out.append({
            "file": f,
            "comment": c.get("comment", ""),
            "query": c["query"],
            "query_type": plan["QueryType"],
            "variant": ins["Variant"],
            "vindex": ins.get("Vindex", ""),
            "values": ins.get("Values", []),
            "tables_used": used,
        })
json.dump(out, sys.stdout, indent=1)
print()
