import { templateFields } from '../../../src/wechat/template-library';

describe('templateFields', () => {
  it('names each {{key.DATA}} of a template, in order, labelled by the text before it on its line', () => {
    expect(templateFields('课程名称：{{thing1.DATA}}\n开课时间：{{time2.DATA}}')).toEqual([
      { key: 'thing1', label: '课程名称' },
      { key: 'time2', label: '开课时间' },
    ]);
  });

  it('reads the old layout (first and remark alone on their lines), spaces, CRLF, two fields on a line, a repeat', () => {
    expect(
      templateFields(
        '{{first.DATA}}\r\n订单号: {{ keyword1.DATA }} 金额：{{amount2.DATA}}\n{{remark.DATA}}\n再次：{{keyword1.DATA}}',
      ),
    ).toEqual([
      { key: 'first', label: '' },
      { key: 'keyword1', label: '订单号' },
      { key: 'amount2', label: '金额' },
      { key: 'remark', label: '' },
    ]);
  });

  it('finds none in a content without placeholders', () => {
    expect(templateFields('感谢您的关注')).toEqual([]);
  });
});
