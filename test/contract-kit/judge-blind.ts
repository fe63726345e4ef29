/**
 * The rogues whose fault the judge of every exchange does not see yet, by how they break their
 * rule, each with why: only the rule's own test catches them. This is the distance left to a kit
 * whose verdicts come from the judge alone (docs/contract-kit.md, "One judge, every exchange");
 * rogues.test.ts fails when a rogue leaves this list or joins it, so it stays measured.
 */
export const JUDGE_BLIND: Record<string, string> = {
  'skips the first item of a next page that is not the last':
    'the judge sees the walk leave a message out, but names the list’s rule: no page of the same list shown whole, with no write between, held the message, to tell the paging’s fault from the list’s',
  'leaves out the item just before the cursor on the way back (ending_before)':
    'the judge does not follow walks backwards (ending_before and the like)',
  'answers a create without phone_number with 400, and creates the contact all the same':
    'the judge does not follow what a refused request might have left behind',
  'answers a send without message with 400, and sends it with a text of its own all the same':
    'the judge does not follow what a refused request might have left behind',
  'also deletes the next message of the conversation':
    'the judge sees a message missing from a conversation’s list, and names the filter, not the delete that took it',
  "also empties another contact's conversation":
    'the judge sees messages missing from the lists, and names the filters, not the delete that took them',
  'drops active when limit is given too':
    'the judge does not know which contacts `active` selects: the document leaves its meaning to the server',
  'sets updated_at of a message never updated when it is retrieved the third time':
    'a passive judge cannot know that no client it does not see updated the message',
};
