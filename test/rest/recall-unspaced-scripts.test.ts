import test from "ava";
import { assertFirstMatchedThrough, type NotesWorkspace, startWithNotes } from "./explained-recall.js";

// Memories in scripts written without spaces between words, end to end (ADR 0670): the index and the
// built-in models see Chinese, Japanese and Korean as overlapping bigrams and Thai as its dictionary
// words, and a question that shares a word with a memory — not its whole clause — finds it through
// BM25 (explain's matched terms) and ranks it first.

let workspace: NotesWorkspace;

test.before(async () => {
  workspace = await startWithNotes(
    {},
    {
      release: "我们下周二讨论新版本的发布计划。",
      budget: "财务部门明天提交年度预算报告。",
      trip: "团队三月去北京出差，住在公司附近的酒店。",
      meeting: "金曜日の会議は来週に延期されました。",
      lunch: "昼ごはんは駅前のラーメン屋で食べました。",
      korean: "회의는 금요일로 연기되었습니다.",
      thaiMeeting: "พรุ่งนี้เราจะประชุมที่โรงเรียนตอนเก้าโมง",
      thaiFood: "แม่ทำอาหารอร่อยมากเมื่อวานนี้",
      german: "Das Sommerfest findet diesmal im Innenhof statt.",
    },
  );
});

test.after.always(async () => {
  await workspace?.service.stop();
});

test.serial("a Chinese question finds the memory it shares words with", async (t) => {
  assertFirstMatchedThrough(
    t,
    await workspace.recall("发布计划什么时候讨论？"),
    workspace.ids.release,
    "发布",
  );
  assertFirstMatchedThrough(t, await workspace.recall("谁提交预算？"), workspace.ids.budget, "预算");
});

test.serial("a Japanese and a Korean question find theirs", async (t) => {
  assertFirstMatchedThrough(t, await workspace.recall("会議はいつですか"), workspace.ids.meeting, "会議");
  assertFirstMatchedThrough(t, await workspace.recall("회의 일정"), workspace.ids.korean, "회의");
});

test.serial("a Thai question finds the memory that holds its word", async (t) => {
  assertFirstMatchedThrough(t, await workspace.recall("ประชุมที่ไหน"), workspace.ids.thaiMeeting, "ประชุม");
  assertFirstMatchedThrough(t, await workspace.recall("อาหารอร่อย"), workspace.ids.thaiFood, "อาหาร");
});

test.serial("German next to them is recalled as before", async (t) => {
  assertFirstMatchedThrough(
    t,
    await workspace.recall("Wo ist das Sommerfest?"),
    workspace.ids.german,
    "sommerf",
  );
});
