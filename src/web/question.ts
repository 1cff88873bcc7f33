/** A question asked before an action that cannot be taken back: its title, its text, and the words of its yes. No Node, no DOM. */
export interface Question {
  readonly title: string;
  readonly text: string;
  /** The label of the answer that says yes, e.g. `Resume now`. */
  readonly yes: string;
}
