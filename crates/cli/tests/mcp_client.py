"""Drives Pathwise's MCP server with the official Python SDK (`mcp` from PyPI), as another
assistant would: lists tools, prompts and resources, runs a topic from start to a scheduled
review with content the client writes itself, and checks that bad arguments are tool errors.

    python mcp_client.py stdio PATHWISE_BINARY DATA_DIR KEY_ORACLE_URL
    python mcp_client.py http URL TOKEN KEY_ORACLE_URL

The key oracle is the test harness's: no client is ever shown an answer key, so the client
asks it for the key of what it was offered, to answer right where the test needs it.

Prints one JSON object with what it saw; exits non-zero on the first failed expectation.
"""

import asyncio
import json
import sys

import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

DECOMPOSITION = {
    "root": "Sets",
    "nodes": [
        {"label": "Sets", "description": "Collections of distinct objects.", "effort_minutes": 20},
        {"label": "Relations", "description": "Sets of ordered pairs.", "effort_minutes": 30},
        {"label": "Functions", "description": "Relations with one output per input.", "effort_minutes": 30},
    ],
    "edges": [{"parent": "Sets", "child": "Relations"}, {"parent": "Relations", "child": "Functions"}],
}


def expect(condition, message):
    if not condition:
        print(json.dumps({"failed": message}))
        sys.exit(1)


async def call(client, name, arguments):
    result = await client.call_tool(name, arguments)
    text = " ".join(block.text for block in result.content if getattr(block, "text", None))
    return result, text


async def ok(client, name, arguments):
    result, text = await call(client, name, arguments)
    expect(not result.is_error, f"{name} failed: {text}")
    return result.structured_content


async def exercise(client, oracle):
    seen = {}
    tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    seen["tools"] = sorted(tools)
    expect(all(tool.input_schema.get("type") == "object" for tool in tools.values()), "an input schema is no object")
    seen["prompts"] = sorted(p.name for p in (await client.list_prompts()).prompts)
    prompt = await client.get_prompt("curriculum_planning", {"topic": "Discrete mathematics"})
    seen["planning_prompt_mentions_decomposition"] = "decomposition" in prompt.messages[0].content.text

    flow = await ok(client, "teaching_flow_start", {"topic": "Discrete mathematics"})
    flow_id = flow["id"]
    step = await ok(
        client, "teaching_flow_advance", {"flow_id": flow_id, "step": "plan", "decomposition": DECOMPOSITION}
    )
    map_id = step["plan"]["mind_map_id"]
    step = await ok(client, "teaching_flow_advance", {"flow_id": flow_id, "step": "teach", "caller_explains": True})
    node = step["node"]
    expect(node["label"] == "Sets", f"taught {node['label']} first")
    expect("Sets" in step["context"], "the context block does not name the concept")
    question = {"concept": "Sets", "text": "Which is a set?", "kind": "choice", "choices": ["{1, 2}", "1 + 2"], "correct": 0}
    asked = await ok(client, "teaching_flow_advance", {"flow_id": flow_id, "step": "quiz", "question": question})
    # A choice is answered by its index, counted from 0 (or by its text), naming its question.
    step = await ok(
        client,
        "teaching_flow_advance",
        {"flow_id": flow_id, "step": "answer", "answer": "0", "question_id": asked["question_id"]},
    )
    seen["graded"] = step["grade"]
    expect(step["grade"]["correct"], f"the right choice was graded wrong: {step['grade']}")
    reviewed = await ok(client, "mind_map_node_get", {"node_id": node["id"]})
    expect(reviewed["next_review_at"] is not None, "no review was scheduled")
    seen["next_review_at"] = reviewed["next_review_at"]
    seen["flow_status"] = step["flow"]["status"]

    resources = (await client.list_resources()).resources
    seen["resources"] = sorted(str(r.uri) for r in resources)
    templates = (await client.list_resource_templates()).resource_templates
    seen["resource_templates"] = sorted(str(t.uri_template) for t in templates)
    contents = (await client.read_resource(f"pathwise://mind-maps/{map_id}")).contents
    seen["resource_nodes"] = len(json.loads(contents[0].text)["nodes"])

    result, text = await call(
        client,
        "mastery_record_response",
        {"node_id": node["id"], "mind_map_id": map_id, "question_text": "q", "quality": "five"},
    )
    expect(result.is_error, "a mistyped quality was accepted")
    seen["mistyped_error"] = text
    result, text = await call(client, "mind_map_edge_create", {"mind_map_id": map_id})
    expect(result.is_error, "a missing argument was accepted")
    seen["missing_error"] = text
    result, text = await call(client, "no_such_tool", {})
    expect(result.is_error, "an unknown tool was accepted")
    seen["unknown_error"] = text

    seen["evaluation"] = await evaluation_to_its_score(client)
    seen["tutor"] = await tutor_turns(client, oracle)
    return seen


async def evaluation_to_its_score(client):
    """An evaluation run item by item without a stream, as the run_evaluation prompt says."""
    prompt = await client.get_prompt("run_evaluation", {})
    expect("session_run" in prompt.messages[0].content.text, "run_evaluation does not name session_run")
    assessments = (await ok(client, "library_assessments", {}))["assessments"]
    fixed = next(a for a in assessments if a["selection"] == "fixed")
    session = await ok(
        client, "session_create", {"session_type": "evaluation", "config": {"blueprint_id": fixed["blueprint_id"]}}
    )
    answered = 0
    run = await ok(client, "session_run", {"session_id": session["id"]})
    while run["session"]["status"] == "awaiting_response":
        expect("expected" not in json.dumps(run["events"]), "an evaluation showed a key before its end")
        action = next(e for e in reversed(run["events"]) if e["event"] == "client_action")["data"]
        response = {"selected_index": 0} if action["tool"] == "present_choices" else {"text": "42"}
        await ok(
            client,
            "session_respond",
            {"session_id": session["id"], "tool_call_id": action["tool_call_id"], "response": response},
        )
        answered += 1
        expect(answered <= fixed["item_count"], "the evaluation asked more items than it has")
        run = await ok(client, "session_run", {"session_id": session["id"]})
    results = run["session"]["results"]
    expect(run["session"]["status"] == "completed", f"the evaluation ended {run['session']['status']}")
    transcript = (await client.read_resource(f"pathwise://sessions/{session['id']}/transcript")).contents
    return {
        "answered": answered,
        "item_count": fixed["item_count"],
        "items_answered": results["items_answered"],
        "has_score": "score" in results and "max_score" in results,
        "transcript_messages": len(json.loads(transcript[0].text)["messages"]),
    }


async def tutor_turns(client, oracle):
    """A tutor thread on a shipped course to a drill streak that opens the unit's check, and an
    exam answer given wrong, which locks the question until its support is read."""
    courses = (await ok(client, "course_list", {}))["courses"]
    course = courses[0]["id"]
    prompt = await client.get_prompt("tutor_course", {"course_id": course})
    expect("tutor_turn" in prompt.messages[0].content.text, "tutor_course does not name tutor_turn")
    thread = (await ok(client, "tutor_thread_create", {"courseId": course}))["id"]
    turn = await ok(client, "tutor_turn", {"thread_id": thread, "messageText": "where do I start?"})
    focus = turn["snapshotLite"]["focus"]["unitId"]
    reply = await ok(client, "tutor_turn", {"thread_id": thread, "clientEvent": {"type": "REQUEST_DRILL", "unitId": focus}})
    # The policy may send the learner to a prerequisite first: the drill names its unit.
    unit = reply["messages"][0]["card"]["unitId"]
    seen = {}
    for streak in range(1, 6):
        card = reply["messages"][0]["card"]
        expect(card["type"] == "DRILL", f"no drill: {card}")
        key = await oracle.get(f"/drill/{card['drillId']}")
        expect(key.status_code == 200, f"the oracle has no key for {card['drillId']}: {key.text}")
        answer = {"thread_id": thread, "unitId": unit, "drill": card, "studentAnswer": key.text}
        graded = await ok(client, "tutor_drill_grade", answer)
        expect(graded["isCorrect"], f"the drill's key was graded wrong: {graded}")
        expect(graded["drill"]["streakCorrect"] == streak, f"streak {streak} counted {graded['drill']}")
        seen["streak"] = streak
        if streak == 1:
            seen["replayed"] = (await ok(client, "tutor_drill_grade", answer)).get("replayed") is True
        if (graded["snapshotLite"].get("examCheck") or {}).get("unitId") == unit:
            break
        event = {"type": "DRILL_CONTINUE", "unitId": unit, "lastResult": "correct"}
        reply = await ok(client, "tutor_turn", {"thread_id": thread, "clientEvent": event})
    expect((graded["snapshotLite"].get("examCheck") or {}).get("unitId") == unit, "right drills never opened the check")

    exam = await ok(client, "tutor_turn", {"thread_id": thread, "clientEvent": {"type": "REQUEST_EXAM", "unitId": unit}})
    card = exam["messages"][0]["card"]
    expect(card["type"] == "EXAM", f"no exam question: {card}")
    seen["exam_card_shows_key"] = "correct" in card
    key = await oracle.get(f"/exam/{course}/{card['questionId']}")
    expect(key.status_code == 200, f"the oracle has no key for {card['questionId']}: {key.text}")
    wrong = (int(key.text) + 1) % len(card["options"])
    answer = {"thread_id": thread, "unitId": unit, "questionId": card["questionId"], "selectedIndex": wrong}
    seen["wrong_answer_correct"] = (await ok(client, "tutor_exam_submit", answer))["isCorrect"]
    result, text = await call(client, "tutor_exam_submit", answer)
    expect(result.is_error, "a locked question took a second answer")
    seen["second_answer_error"] = text
    viewed = {"thread_id": thread, "unitId": unit, "questionId": card["questionId"], "supportType": "memo"}
    seen["memo"] = bool((await ok(client, "tutor_support_viewed", viewed)).get("memo"))

    snapshot = (await client.read_resource(f"pathwise://courses/{course}/snapshot")).contents
    seen["snapshot_streak"] = json.loads(snapshot[0].text)["snapshot"]["unitProgress"][unit]["drill"]["streakCorrect"]
    return seen


async def main():
    mode, target, extra, oracle_url = sys.argv[1:5]
    oracle = httpx2.AsyncClient(base_url=oracle_url, timeout=30)
    if mode == "stdio":
        server = StdioServerParameters(command=target, args=["--data-dir", extra, "mcp"])
        async with oracle, Client(server) as client:
            seen = await exercise(client, oracle)
    else:
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {extra}"}, timeout=30)
        async with oracle, http, Client(streamable_http_client(target, http_client=http)) as client:
            seen = await exercise(client, oracle)
    print(json.dumps(seen))


asyncio.run(main())
