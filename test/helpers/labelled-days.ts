import type { LabelledDay, LabelledPaper } from "../../pipeline/domain/relevance-training.ts";

// Small labelled days a person can check: must-reads speak of agent governance, on-topic papers of
// agents, off-mission papers of images; regulated papers (REG FIT 3) of audits.

export function labelledPaper(
  title: string,
  label: 0 | 1 | 2,
  regFit: number | null,
  i: number,
): LabelledPaper {
  return {
    paper: {
      title: `${title} ${i}`,
      summary: `${title} study number ${i} with filler words`,
      categories: ["cs.AI"],
    },
    label,
    reg_fit: regFit,
  };
}

/** Four must-reads, six on-topic papers and fourteen off-mission ones, numbered from `offset`. */
export function labelledDay(date: string, offset: number): LabelledDay {
  const papers: LabelledPaper[] = [];
  for (let i = 0; i < 4; i++) papers.push(labelledPaper("agent governance audit", 2, 3, offset + i));
  for (let i = 0; i < 6; i++) papers.push(labelledPaper("agent tool runtime", 1, 2, offset + i));
  for (let i = 0; i < 14; i++) papers.push(labelledPaper("image segmentation pixels", 0, null, offset + i));
  return { date, papers };
}
