import { STOPWORDS } from "../../models/lexicon/stopwords.js";
import type { QueryTime } from "./parse-query-time.js";

const WORD = /[\p{L}\p{M}\p{N}]+/gu;

/**
 * Words that ask about a conversation without naming what it was about: "what did we talk about
 * yesterday?", "Was haben wir gestern besprochen?". Written for this project (verbs of saying,
 * deciding and happening in their common forms), not fitted to a data set.
 */
const ABOUT_TALK = new Set(
  `
talk talks talked talking discuss discusses discussed discussing discussion say says said tell tells told
mention mentions mentioned speak speaks spoke spoken chat chats chatted conversation conversations
happen happens happened happening go going went decide decides decided decision decisions agree agreed
plan planned do does did done doing make made get got thing things anything something stuff
up new news topic topics
sprechen spricht sprach gesprochen besprechen bespricht besprach besprochen besprechung reden redet
geredet sagen sagt sagte gesagt erzählen erzählt erzählte erwähnen erwähnt erwähnte passieren passiert
passierte geschehen geschah los machen macht machte gemacht tun tat getan beschließen beschließt
beschloss beschlossen entscheiden entschied entschieden einigen geeinigt vereinbart planen geplant
thema themen gespräch gespräche neues neu ding dinge
`
    .split(/\s+/)
    .filter((word) => word.length > 0),
);

/**
 * Whether the query asks only about a time: besides its time expression it has nothing but function
 * words and words about talking. Then the time is the only condition the question states, and recall
 * applies it in full (ADR 0610): a turn from another day that happens to share "talked about" with the
 * question must not outrank the day's turns.
 */
export function isTimeOnlyQuestion(query: string, time: Pick<QueryTime, "index" | "length">): boolean {
  const rest = `${query.slice(0, time.index)} ${query.slice(time.index + time.length)}`;
  const words = rest.normalize("NFC").toLowerCase().match(WORD) ?? [];
  return words.every(
    (word) => STOPWORDS.de.has(word) || STOPWORDS.en.has(word) || ABOUT_TALK.has(word) || /^\d+$/u.test(word),
  );
}
