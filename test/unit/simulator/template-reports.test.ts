import {
  createTemplateReports,
  parseTemplateReportSpec,
  templateReportFields,
} from '../../../src/simulator/template-reports';

describe('template delivery reports', () => {
  it('report nothing until asked, then the asked Status for the next `count` accepted sends', () => {
    const reports = createTemplateReports();
    expect(reports.next()).toBeNull();
    const parsed = parseTemplateReportSpec({ status: 'failed:freq limit', count: 2 });
    if ('problems' in parsed) throw new Error(parsed.problems.join('; '));
    reports.set(parsed.spec);
    expect([reports.next(), reports.next(), reports.next()]).toEqual([
      'failed:freq limit',
      'failed:freq limit',
      null,
    ]);
  });

  it('refuse a Status WeChat does not push, naming the field', () => {
    expect(parseTemplateReportSpec({ status: 'failed:whatever' })).toEqual({
      problems: [expect.stringMatching(/^status: /)],
    });
  });

  it('push TEMPLATESENDJOBFINISH with the send’s MsgID and the Status', () => {
    expect(templateReportFields(200000001, 'failed:freq limit')).toEqual([
      ['Event', 'TEMPLATESENDJOBFINISH', 'text'],
      ['MsgID', '200000001', 'number'],
      ['Status', 'failed:freq limit', 'text'],
    ]);
  });
});
